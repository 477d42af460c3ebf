/** How a pg_auto_failover cluster's failover is caused (`run --cluster-fault`), apart from its manager. */
export const PG_AUTO_FAILOVER_FAULTS = ['promotion', 'kill'] as const;
export type PgAutoFailoverFault = (typeof PG_AUTO_FAILOVER_FAULTS)[number];
