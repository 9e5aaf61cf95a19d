module.exports = require('../../tools/webpack/app-webpack.cjs')(__dirname, 'auth');
