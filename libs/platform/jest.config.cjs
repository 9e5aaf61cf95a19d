module.exports = { ...require('../../jest.preset.cjs'), displayName: 'platform', rootDir: __dirname };
