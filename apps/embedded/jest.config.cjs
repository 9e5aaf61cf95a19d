module.exports = { ...require('../../jest.preset.cjs'), displayName: 'embedded', rootDir: __dirname };
