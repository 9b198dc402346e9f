/** A webhook subscription as the alerts read it (its own file: the subscription store and its index both need it). */
import type { Channel } from './channels/types.js';
import type { EventType, WebhookFilter } from './events.js';

export interface Subscription {
  id: string;
  keyId: string;
  url: string;
  events: EventType[];
  filter: WebhookFilter;
  description: string | null;
  secret: string;
  /** A notification channel instead of a webhook (then `url` is its target without secrets); null for a webhook. */
  channel: Channel | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}
