export { ClusterArgs } from "./cluster";
export type Cluster = import("./cluster").Cluster;
export declare const Cluster: typeof import("./cluster").Cluster;
export { ClusterSchedulerConfigArgs } from "./clusterSchedulerConfig";
export type ClusterSchedulerConfig = import("./clusterSchedulerConfig").ClusterSchedulerConfig;
export declare const ClusterSchedulerConfig: typeof import("./clusterSchedulerConfig").ClusterSchedulerConfig;
export { ComputeQuotaArgs } from "./computeQuota";
export type ComputeQuota = import("./computeQuota").ComputeQuota;
export declare const ComputeQuota: typeof import("./computeQuota").ComputeQuota;
export { GcpTrainingClusterArgs } from "./gcpTrainingCluster";
export type GcpTrainingCluster = import("./gcpTrainingCluster").GcpTrainingCluster;
export declare const GcpTrainingCluster: typeof import("./gcpTrainingCluster").GcpTrainingCluster;
export { ProviderArgs } from "./provider";
export type Provider = import("./provider").Provider;
export declare const Provider: typeof import("./provider").Provider;
import * as config from "./config";
import * as types from "./types";
export { config, types, };
//# sourceMappingURL=index.d.ts.map