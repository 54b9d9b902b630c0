import { builder } from './builder.js';
import { describeSchema } from './descriptions.js';
import './scalars.js';
import './node.js';
import './plan.js';
import './account/index.js';
import './category/index.js';
import './payee/index.js';
import './month.js';
import './money-movement.js';
import './transaction/index.js';
import './scheduled-transaction/index.js';
import './user.js';
import './subscriptions.js';

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

export const schema = describeSchema(builder.toSchema({ sortSchema: false }));
