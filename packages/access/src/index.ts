// Every export here is public API; named exports only.
export type {
  ApiKeyRecord,
  KeyStore,
  RateDecision,
  RateLimiter,
  RateLimitSettings,
  UsageDelta,
  UsageStore,
  UsageSummary,
} from './contracts.js';
export { keyStoreToken, rateLimiterToken, usageStoreToken } from './contracts.js';
export type { KeyRow, UsageRow } from './rows.js';
export { keyRecordFromRow, usageSummariesFromRows } from './rows.js';
