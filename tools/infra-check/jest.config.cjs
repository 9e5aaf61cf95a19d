module.exports = { ...require('../../jest.preset.cjs'), displayName: 'infra-check', rootDir: __dirname };
