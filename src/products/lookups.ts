/**
 * The product answer's sub-lookups through the normal lookup path (LookupService: cache, de-duplication, the
 * marketplace's limiter and breaker, history recording): each is exactly the lookup its own route would run.
 */
import type { CacheStatus, LookupOptions, LookupService } from '../operations/lookup.js';
import type { Registry } from '../operations/registry.js';
import type { AnyOperation, Operation } from '../operations/types.js';
import { zodToInvalidParameter } from '../param-errors.js';
import type { LookupRecord, ProductLookupName, ProductLookupRecords, ProductLookups } from './source.js';

/** ProductLookups over a LookupService, remembering how each lookup was answered (X-Cache). */
export class ServiceLookups implements ProductLookups {
  readonly answeredWith: CacheStatus[] = [];

  constructor(
    private readonly lookup_: LookupService,
    private readonly registry: Registry,
    private readonly options: LookupOptions,
  ) {}

  async run<N extends ProductLookupName>(
    operation: N,
    params: Record<string, unknown>,
  ): Promise<LookupRecord<ProductLookupRecords[N]>> {
    const op = this.registry.operation(operation);
    if (!op) throw new Error(`operation ${operation} is not registered`);
    return this.runOperation<ProductLookupRecords[N]>(op, params, this.options);
  }

  /**
   * ResolveContext: a marketplace's finder runs its search here. Without `maxAgeSeconds`: which product a SKU names
   * does not change, so a cached search serves it even when the caller forces live prices (as in LookupService).
   */
  async lookup<R>(
    op: Operation<Record<string, unknown>, unknown, R, string, string>,
    params: Record<string, unknown>,
  ): Promise<R> {
    const { maxAgeSeconds: _live, ...options } = this.options;
    return (await this.runOperation<R>(op, params, options)).record;
  }

  private async runOperation<R>(
    op: AnyOperation,
    params: Record<string, unknown>,
    options: LookupOptions,
  ): Promise<LookupRecord<R>> {
    const checked = op.params.safeParse(params);
    if (!checked.success) throw zodToInvalidParameter(checked.error);
    const result = await this.lookup_.run(op, checked.data, options);
    this.answeredWith.push(result.cache);
    // The lookup checked the record against the operation's schema before caching it (parseChecked).
    const record = JSON.parse(result.body.toString('utf8')) as R;
    return { record, missingParts: result.missingParts, cache: result.cache };
  }

  /** One X-Cache for the answer: `miss` when any lookup went upstream, else stale, shared, or `hit` when all hit. */
  summary(): CacheStatus {
    for (const status of ['miss', 'stale', 'shared'] as const) if (this.answeredWith.includes(status)) return status;
    return 'hit';
  }
}
