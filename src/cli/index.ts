// Process entry of bin/deletions.
import { main } from './main.js';

await main();
