"""slurm.conf parameters: the PARAMETERS, NODE, NODESET, DOWN NODE, PARTITION and POWERACTION
sections of slurm.conf(5), with the value type Slurm's own parser gives each (`slurm_conf_options`
in src/common/read_config.c). Taken from the Slurm 26.11 development tree (SchedMD/slurm, commit
284c3b95f08a); regenerate the two tables from those files when Slurm adds a parameter.

Names are matched case-insensitively, as slurmctld does ("The contents of the file are case
insensitive except for the names of nodes and partitions").
"""

from __future__ import annotations

# value type -> parameter names ("array" parameters may appear on several lines; "string" is free text)
_BY_KIND: dict[str, tuple[str, ...]] = {
    "array": (
        "DownNodes", "Epilog", "EpilogSlurmctld", "NodeName", "NodeSet", "PartitionName", "PowerAction",
        "Prolog", "PrologSlurmctld", "SlurmctldHost",
    ),
    "boolean": (
        "AllowSpecResourcesUsage", "DisableRootJobs", "PriorityFavorSmall", "TrackWCKey", "UsePAM",
    ),
    "string": (
        "AccountingStorageBackupHost", "AccountingStorageEnforce", "AccountingStorageExternalHost",
        "AccountingStorageHost", "AccountingStorageParameters", "AccountingStoragePass",
        "AccountingStorageTRES", "AccountingStorageType", "AccountingStoreFlags", "AcctGatherEnergyType",
        "AcctGatherFilesystemType", "AcctGatherInterconnectType", "AcctGatherProfileType",
        "AuthAltParameters", "AuthAltTypes", "AuthInfo", "AuthType", "BcastExclude", "BcastParameters",
        "BurstBufferType", "CertgenParameters", "CertgenType", "CertmgrParameters", "CertmgrType",
        "CliFilterParameters", "CliFilterPlugins", "ClusterName", "CommunicationParameters", "CpuFreqDef",
        "CpuFreqGovernors", "CredType", "DataParserParameters", "DebugFlags", "DefRuntimePlugin",
        "DependencyParameters", "EnforcePartLimits", "FederationParameters", "GpuFreqDef", "GresTypes",
        "HashPlugin", "HealthCheckNodeState", "HealthCheckProgram", "HttpParserType",
        "InteractiveStepOptions", "JobAcctGatherFrequency", "JobAcctGatherParams", "JobAcctGatherType",
        "JobCompHost", "JobCompLoc", "JobCompParams", "JobCompPass", "JobCompPassScript", "JobCompType",
        "JobCompUser", "JobSubmitPlugins", "LaunchParameters", "LicenseParameters", "Licenses",
        "LogTimeFormat", "MailDomain", "MailProg", "MCSParameters", "MCSPlugin", "MetricsAuthUsers",
        "MetricsParameters", "MetricsType", "MpiDefault", "MpiParams", "NamespaceType", "NodeFeaturesPlugins",
        "PluginDir", "PlugStackConfig", "PreemptExemptTime", "PreemptMode", "PreemptParameters",
        "PreemptType", "PrEpParameters", "PrEpPlugins", "PriorityCalcPeriod", "PriorityDecayHalfLife",
        "PriorityFlags", "PriorityMaxAge", "PriorityParameters", "PrioritySiteFactorParameters",
        "PrioritySiteFactorPlugin", "PriorityType", "PriorityUsageResetPeriod", "PriorityWeightTRES",
        "PrivateData", "ProctrackType", "PrologFlags", "PropagateResourceLimits",
        "PropagateResourceLimitsExcept", "RebootProgram", "ReconfigFlags", "RequeueExit", "RequeueExitHold",
        "ResumeFailProgram", "ResumeProgram", "ResvEpilog", "ResvProlog", "SchedulerParameters",
        "SchedulerType", "ScronParameters", "SelectType", "SelectTypeParameters", "SerializerParameters",
        "SerializerPlugins", "SlurmctldAddr", "SlurmctldDebug", "SlurmctldHttpAuthParameters",
        "SlurmctldLogFile", "SlurmctldParameters", "SlurmctldPidFile", "SlurmctldPort",
        "SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg", "SlurmctldSyslogDebug", "SlurmdDebug",
        "SlurmdHttpAuthParameters", "SlurmdLogFile", "SlurmdParameters", "SlurmdPidFile", "SlurmdSpoolDir",
        "SlurmdSyslogDebug", "SlurmdUser", "SlurmrestdParameters", "SlurmSchedLogFile",
        "SlurmstepdParameters", "SlurmUser", "SrunEpilog", "SrunPortRange", "SrunProlog", "StateSaveLocation",
        "SuspendExcNodes", "SuspendExcParts", "SuspendExcStates", "SuspendProgram", "SuspendTime",
        "SwitchParameters", "SwitchType", "TaskEpilog", "TaskPlugin", "TaskPluginParam", "TaskProlog",
        "TLSParameters", "TLSType", "TmpFS", "TopologyParam", "TopologyPlugin", "UnkillableStepProgram",
        "UrlParserType",
    ),
    "uint16": (
        "AccountingStoragePort", "AcctGatherNodeFreq", "BatchStartTimeout", "CompleteWait", "EioTimeout",
        "EpilogTimeout", "FairShareDampeningFactor", "GroupUpdateForce", "GroupUpdateTime",
        "HealthCheckInterval", "HealthCheckTimeout", "InactiveLimit", "JobFileAppend", "JobRequeue",
        "KillOnBadExit", "KillWait", "MaxTasksPerNode", "MessageTimeout", "OverTimeLimit",
        "PrologEpilogTimeout", "PrologTimeout", "PropagatePrioProcess", "ResumeRate", "ResumeTimeout",
        "ResvOverRun", "ReturnToService", "SchedulerTimeSlice", "SlurmctldTimeout", "SlurmdTimeout",
        "SlurmSchedLogLevel", "SuspendRate", "SuspendTimeout", "TCPTimeout", "TreeWidth",
        "UnkillableStepTimeout", "VSizeFactor", "WaitTime",
    ),
    "uint32": (
        "EpilogMsgTime", "FirstJobId", "JobCompPort", "MaxArraySize", "MaxBatchRequeue", "MaxDBDMsgs",
        "MaxJobCount", "MaxJobId", "MaxNodeCount", "MaxStepCount", "MinJobAge", "PriorityWeightAge",
        "PriorityWeightAssoc", "PriorityWeightFairshare", "PriorityWeightJobSize", "PriorityWeightPartition",
        "PriorityWeightQOS", "SlurmdPort",
    ),
    "uint64": (
        "DefCpuPerGPU", "DefMemPerCPU", "DefMemPerGPU", "DefMemPerNode", "keepalivetime", "MaxMemPerCPU",
        "MaxMemPerNode",
    ),
}

# Accepted by the parser for old files but gone from the documentation (or marked defunct there):
# refused, because setting them no longer does what their name says.
OBSOLETE: frozenset[str] = frozenset((
    "AccountingStorageUser", "AccountingStoreJobComment", "AcctGatherInfinibandType", "BackupAddr",
    "BackupController", "BurstBufferParameters", "ControlAddr", "ControlMachine", "CoreSpecPlugin",
    "CryptoType", "ExtSensorsFreq", "ExtSensorsType", "FastSchedule", "GetEnvTimeout", "JobContainerType",
    "JobCredentialPrivateKey", "JobCredentialPublicCertificate", "LaunchType", "PowerParameters",
    "PowerPlugin", "RoutePlugin", "SallocDefaultCommand", "SbcastParameters", "SlurmrestdHttpAuthParameters",
    "X11Parameters",
))

KIND: dict[str, str] = {name: kind for kind, names in _BY_KIND.items() for name in names}
CANONICAL: dict[str, str] = {name.lower(): name for name in (*KIND, *OBSOLETE)}
