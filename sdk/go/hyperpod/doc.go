// Declarative Amazon SageMaker HyperPod clusters: the preview prints the plan (which groups grow or shrink, which nodes a scale-in removes and why), and the update makes the fewest correct API calls.
package hyperpod
