import './account.js';
import './mutations.js';
