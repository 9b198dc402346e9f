/**
 * Scheduled jobs (migration 0002-history): the one table both schedulers read. A job is a kind (`track` for a
 * tracked product, `canary` for the status canaries), a JSON payload the kind's handler understands, and an
 * interval. The embedded scheduler also keeps its run state here (next run, lease), so a restart resumes.
 */
export interface ScheduleJobsTable {
  id: string;
  kind: string;
  /** JSON. */
  payload: string;
  interval_ms: number;
  /** Embedded scheduler: when the job is next due (epoch ms). */
  next_run_at: number;
  /** Embedded scheduler: an instance running the job holds it until then; an expired lease frees it. */
  locked_until: number | null;
  last_run_at: number | null;
  last_error: string | null;
  runs: number;
  created_at: number;
  /** When the job was paused (migration 0008); null while it runs. Neither scheduler runs a paused job. */
  paused_at: number | null;
}

export interface ScheduleTables {
  schedule_jobs: ScheduleJobsTable;
}
