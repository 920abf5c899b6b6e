import type { StatusId } from '../../contracts/status-types.js';
import type { StatusWord } from '../../contracts/v2-vocabulary.js';
import type { StatusedOrderState } from '../state.js';

// The 2.0.0 status of an order-status detail (oss-osn-2.0.0.md §4.1).

/** §4.1: the 2.0.0 status word of each statusId that is not a hold. */
const statusWordOf: Partial<Record<StatusId, StatusWord>> = {
  10: 'received',
  20: 'confirmed',
  30: 'preproduction',
  60: 'inProduction',
  70: 'inStorage',
  75: 'partiallyShipped',
  80: 'complete',
  99: 'canceled',
};

/**
 * The detail's status: the ERP's 2.0.0 word where it gave one (the only source of `shipped`),
 * else that of its statusId; a hold (11, 40-44) answers the progress the order had made before
 * it (the last non-hold statusId applied), `received` when it made none.
 */
export function statusWord(state: Pick<StatusedOrderState, 'statusId' | 'statusV2' | 'progressStatusId'>): StatusWord {
  return state.statusV2 ?? statusWordOf[state.statusId] ?? (state.progressStatusId !== undefined ? statusWordOf[state.progressStatusId] : undefined) ?? 'received';
}
