/** The reservation contract's catalog (contract/contract-catalog.ts): its names, without loading it. */
import { CHECKS } from '../../../strategies/contract.ts';
import type { ContractCatalog } from '../../contract/contract-catalog.ts';
import { scenarioIds } from '../../registry/scenario-ids.ts';

export const RESERVATION_CATALOG = {
  id: 'reservation',
  /** Relative to strategies/: the safe designs first, then the negative controls. */
  builtInDesigns: {
    'hot-row': 'hot-row.ts',
    'skip-locked-slots': 'skip-locked-slots.ts',
    'memory-quota': 'memory-quota.ts',
    'row-lock-count': 'row-lock-count.ts',
    'optimistic-cas': 'optimistic-cas.ts',
    serializable: 'serializable.ts',
    'frozen-ledger': 'frozen-ledger.ts',
    bucketed: 'bucketed.ts',
    coalesced: 'coalesced.ts',
    'check-then-act': 'controls/check-then-act.ts',
    'unconditional-expire': 'controls/unconditional-expire.ts',
    'split-tx-release': 'controls/split-tx-release.ts',
    'no-active-index': 'controls/no-active-index.ts',
    'memory-quota-config-restart': 'controls/memory-quota-config-restart.ts',
    'count-without-lock': 'controls/count-without-lock.ts',
    'cas-without-version': 'controls/cas-without-version.ts',
    'async-commit': 'controls/async-commit.ts',
    'local-commit': 'controls/local-commit.ts',
    'release-frozen-only': 'controls/release-frozen-only.ts',
    'release-twice': 'controls/release-twice.ts',
    'bucketed-no-fallback': 'controls/bucketed-no-fallback.ts',
    'standby-stock-check': 'controls/standby-stock-check.ts',
    'take-before-claim': 'controls/take-before-claim.ts',
    'confirm-off-the-books': 'controls/confirm-off-the-books.ts',
    'give-up-releases-claim': 'controls/give-up-releases-claim.ts',
  },
  scenarioIds: scenarioIds('reservation'),
  target: { checks: CHECKS },
  /** A schema name `serve --schema` accepts: an unquoted identifier, so it reads the same in every session. */
  service: { schemaName: /^[a-z_][a-z0-9_]{0,62}$/ },
} satisfies ContractCatalog;
