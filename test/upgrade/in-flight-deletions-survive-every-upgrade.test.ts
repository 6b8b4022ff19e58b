// Deletions left in flight at every level from 7 on survive every later
// migration, with the write fence the migrations installed (native where the
// library is installed): test/helpers/in-flight-upgrade.ts says what is
// checked. The PL/pgSQL fallback climbs in
// in-flight-deletions-survive-every-upgrade-plpgsql-fence.test.ts.
import t from 'tap';
import { climbEveryLevel } from '../helpers/in-flight-upgrade.js';

await climbEveryLevel(t, 'as migrated');
