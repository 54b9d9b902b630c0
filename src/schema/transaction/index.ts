import './enums.js';
import './transaction.js';
import './connection.js';
import './hybrid.js';
import './inputs.js';
import './payloads.js';
import './mutations.js';
