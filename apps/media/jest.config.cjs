module.exports = { ...require('../../jest.preset.cjs'), displayName: 'media', rootDir: __dirname };
