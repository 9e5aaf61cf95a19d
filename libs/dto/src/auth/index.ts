export * from './api-key.dto';
export * from './login.dto';
export * from './auth.constants';
export * from './organization.dto';
export * from './user.dto';
export * from './oauth.dto';
