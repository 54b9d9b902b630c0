import './errors.js';
import './account.js';
import './category.js';
import './category-group.js';
import './payee.js';
import './transaction/index.js';
import './scheduled-transaction.js';
