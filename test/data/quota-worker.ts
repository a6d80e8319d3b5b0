// A separate process for test/data/quota.test.ts: opens the store on the given database
// (`sqlite:<file>` or a postgres:// URL) and spends quota, so the test sees real cross-process
// contention (and a real crash) on one database.
import { setTimeout as sleep } from 'node:timers/promises';
import { openStoreAt } from './backends';

const [location, accountId, months, limit, startAt, mode] = process.argv.slice(2) as [string, string, string, string, string, string?];
const store = openStoreAt(location);
// Start together: process start-up takes longer than the whole loop, so without this barrier
// the processes would simply run one after the other.
await sleep(Math.max(0, Number(startAt) - Date.now()));
// One attempt per month, in step with the other processes: every month is a fresh race for the
// last conversion, instead of the single race a long run on one month would give.
let allowed = 0;
for (let m = 0; m < Number(months); m++) {
  const month = `${2000 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
  if ((await store.consumeQuota(accountId, month, Number(limit))).allowed) allowed++;
}
// 'crash' dies without closing the database: committed usage must survive that.
if (mode === 'crash') process.kill(process.pid, 'SIGKILL');
await store.close();
process.stdout.write(JSON.stringify({ allowed }));
