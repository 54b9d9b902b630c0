import './payee.js';
import './mutations.js';
