/** The job runner (runner.ts) and the recurring jobs' table operations, for the routes, the CLI and the owners of kinds. */
export { createJobRunner, JobRunner, type JobRunnerOptions } from './runner.js';
export type { Scheduler, JobHandler } from './recurring.js';
export type { Lane, LaneClaim, LaneHead, LaneItem, LaneOutcome, LaneSpec, LaneStore, LaneTiming } from './lane.js';
export { addJob, getJob, listJobs, removeJob, setJobPaused, type Job } from './jobs.js';
