/** A webhook subscription as the alerts read it (its own file: the subscription store and its index both need it). */
import type { EventType, WebhookFilter } from './events.js';

export interface Subscription {
  id: string;
  keyId: string;
  url: string;
  events: EventType[];
  filter: WebhookFilter;
  description: string | null;
  secret: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}
