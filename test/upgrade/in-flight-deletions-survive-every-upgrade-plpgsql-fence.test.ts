// Deletions left in flight at every level from 7 on survive every later
// migration on a server without the native fence library, which runs the
// PL/pgSQL write fence: test/helpers/in-flight-upgrade.ts says what is
// checked. The fence as migrated climbs in
// in-flight-deletions-survive-every-upgrade.test.ts.
import t from 'tap';
import { climbEveryLevel } from '../helpers/in-flight-upgrade.js';

await climbEveryLevel(t, 'plpgsql');
