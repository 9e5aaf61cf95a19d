module.exports = { ...require('../../jest.preset.cjs'), displayName: 'api-gateway', rootDir: __dirname };
