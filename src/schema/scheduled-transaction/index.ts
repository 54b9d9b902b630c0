import './scheduled-transaction.js';
import './mutations.js';
