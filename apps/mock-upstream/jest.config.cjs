module.exports = { ...require('../../jest.preset.cjs'), displayName: 'mock-upstream', rootDir: __dirname };
