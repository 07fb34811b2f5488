// CommonJS entry of the training engine: `const { init } = require('attention-lab/training')`. The
// library is an ES module; init() loads it on first use, so no top-level await is needed.
'use strict';

let loaded;
const library = () => (loaded ??= import('./training-node.js'));

exports.init = (options) => library().then((lib) => lib.init(options));
