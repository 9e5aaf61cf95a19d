module.exports = { ...require('../../jest.preset.cjs'), displayName: 'dto', rootDir: __dirname };
