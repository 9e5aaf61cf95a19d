// The gateway is a bundle of its own beside main.js, which its launcher does not parse (decision 198).
module.exports = require('../../tools/webpack/app-webpack.cjs')(__dirname, 'embedded', {
  entries: [{ entryName: 'gateway', entryPath: './src/gateway.ts' }],
});
