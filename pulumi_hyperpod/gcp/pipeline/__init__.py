"""Google Cloud's stages after the planner, in the shape of HyperPod's (aws/pipeline): saved plans
(`saved`)."""
