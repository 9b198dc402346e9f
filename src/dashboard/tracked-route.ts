/**
 * `GET /api/v1/tracked`: the calling key's tracked products (what `POST /api/v1/db/products` created), each with
 * its schedule. Before it, tracked products could be listed only by the CLI; the dashboard's list reads it and asks
 * `/api/v1/history` for each one's prices.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { listJobs } from '../schedule/index.js';
import { TRACK_KIND, trackDoc, type TrackPayload } from '../history/track.js';

export const TRACKED_PATH = '/api/v1/tracked';

export function registerTrackedRoute(app: FastifyInstance, guard: onRequestHookHandler): void {
  app.get(TRACKED_PATH, { schema: { hide: true }, onRequest: guard }, async (req) => {
    const keyId = req.apiKey!.id;
    const jobs = await listJobs<TrackPayload>(app.history.store.db, TRACK_KIND);
    return { docs: jobs.filter((j) => j.payload.ownerKeyId === keyId).map(trackDoc) };
  });
}
