module.exports = require('../../tools/webpack/app-webpack.cjs')(__dirname, 'api-gateway', {
  database: false,
});
