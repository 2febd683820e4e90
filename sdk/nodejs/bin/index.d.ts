export { ClusterArgs } from "./cluster";
export type Cluster = import("./cluster").Cluster;
export declare const Cluster: typeof import("./cluster").Cluster;
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