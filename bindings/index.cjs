// CommonJS entry: `const { init } = require('attention-lab')`. The library is
// an ES module; init() loads it on first use, so no top-level await is needed.
'use strict';

let loaded;
const library = () => (loaded ??= import('./node.js'));

exports.init = (options) => library().then((lib) => lib.init(options));
