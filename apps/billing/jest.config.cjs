module.exports = { ...require('../../jest.preset.cjs'), displayName: 'billing', rootDir: __dirname };
