export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  rates: { date: string | null; fetchedAt: string | null; stale: boolean; lastError: string | null };
}
