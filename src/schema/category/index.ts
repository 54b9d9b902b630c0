import './category.js';
import './mutations.js';
import './group-mutations.js';
