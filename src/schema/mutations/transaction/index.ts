import './inputs.js';
import './payloads.js';
import './mutations.js';
