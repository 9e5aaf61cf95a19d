module.exports = { ...require('../../jest.preset.cjs'), displayName: 'catalogue', rootDir: __dirname };
