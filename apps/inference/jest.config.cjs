module.exports = { ...require('../../jest.preset.cjs'), displayName: 'inference', rootDir: __dirname };
