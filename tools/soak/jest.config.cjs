module.exports = { ...require('../../jest.preset.cjs'), displayName: 'soak', rootDir: __dirname };
