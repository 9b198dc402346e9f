/** What the fetch layer reports about each upstream request (metrics, logs). */
export interface UpstreamEvent {
  marketplace: string;
  tier: string;
  /** `http_200`, `http_404`, or an error code such as `upstream_blocked`. */
  outcome: string;
  seconds: number;
  /** Size of the answer's body (UTF-8 bytes), when there was one. */
  bytes?: number;
}

export interface UpstreamObserver {
  onUpstream(event: UpstreamEvent): void;
}
