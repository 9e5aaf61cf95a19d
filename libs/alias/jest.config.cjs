module.exports = { ...require('../../jest.preset.cjs'), displayName: 'alias', rootDir: __dirname };
