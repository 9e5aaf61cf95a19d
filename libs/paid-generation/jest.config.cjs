module.exports = { ...require('../../jest.preset.cjs'), displayName: 'paid-generation', rootDir: __dirname };
