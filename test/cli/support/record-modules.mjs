// `node --import ./record-modules.mjs`: appends the URL of every ES module (and CommonJS entry
// imported from one) the process loads to the file named by MODULE_LOG.
import { register } from 'node:module';

register(new URL('./record-modules-hooks.mjs', import.meta.url));
