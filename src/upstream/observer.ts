/** What the fetch layer reports about each upstream request (metrics, logs). */
export interface UpstreamEvent {
  marketplace: string;
  tier: string;
  /** `http_200`, `http_404`, or an error code such as `upstream_blocked`. */
  outcome: string;
  seconds: number;
  /** Body size (UTF-8 bytes) of an answer passed on to the operation (`http_*` outcomes); absent for failures. */
  bytes?: number;
}

export interface UpstreamObserver {
  onUpstream(event: UpstreamEvent): void;
}
