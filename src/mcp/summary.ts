/** The short text beside each tool's structuredContent: what an assistant can quote, never a JSON dump. */
export type Summarize = (content: Record<string, unknown>, args: Record<string, unknown>) => string;

export const summarizeRecord =
  (site: string): Summarize =>
  (content) =>
    `${site}: ${JSON.stringify(content).slice(0, 200)}`;

export const summarizeHistory: Summarize = (c) => `history ${JSON.stringify(c).slice(0, 100)}`;
export const summarizeTracked: Summarize = (c) => `tracked ${JSON.stringify(c).slice(0, 100)}`;
export const summarizeTrackedList: Summarize = (c) => `tracked ${JSON.stringify(c).slice(0, 100)}`;
export const summarizeWebhook: Summarize = (c) => `webhook ${JSON.stringify(c).slice(0, 100)}`;
export const summarizeWebhookList: Summarize = (c) => `webhooks ${JSON.stringify(c).slice(0, 100)}`;
