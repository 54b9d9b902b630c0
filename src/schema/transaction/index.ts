import './enums.js';
import './transaction.js';
import './connection.js';
import './hybrid.js';
