import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsString,
  IsUUID,
  Length,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { SpendingLimit } from '../billing/billing.contracts';
import { rpc } from '../contract';
import { type OrganizationRole } from '../principal';

/** `user:id` is always granted; the other two only when the user ticks them on the consent page. */
export const OAUTH_SCOPES = ['user:id', 'user:name', 'user:email'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];
export const ALWAYS_GRANTED_SCOPE: OAuthScope = 'user:id';

/** The interface's exact texts (spec/interface.md, OAuth error tables); clients and tests compare them. */
export const OAUTH_MESSAGES = {
  invalidCallbackUrl: 'Невалидный callback_url',
  onlyS256: 'Поддерживается только метод S256',
  invalidCodeChallenge: 'Невалидный code_challenge',
  invalidCode: 'Невалидный код авторизации',
  codeUsed: 'Код авторизации уже использован',
  codeExpired: 'Код авторизации истёк',
  callbackMismatch: 'callback_url не совпадает',
  invalidVerifier: 'Невалидный code_verifier',
} as const;

/** An authorization code lives this long (interface: 5 minutes, single use). */
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60_000;

/** The longest callback_url and app_name taken; far beyond real ones, short enough to show and store. */
export const CALLBACK_URL_MAX_LENGTH = 2048;
export const APP_NAME_MAX_LENGTH = 100;

/** The user approved: everything the code stands for until it is exchanged. */
export class IssueAuthorizationCodeRequest {
  @IsUUID()
  userId!: string;

  @IsUUID()
  organizationId!: string;

  @IsString()
  @Length(1, CALLBACK_URL_MAX_LENGTH)
  callbackUrl!: string;

  @IsString()
  @Length(43, 128)
  codeChallenge!: string;

  @ValidateIf((_request, value) => value !== null)
  @IsString()
  @Length(1, APP_NAME_MAX_LENGTH)
  appName!: string | null;

  @IsArray()
  @IsIn(OAUTH_SCOPES, { each: true })
  scopes!: OAuthScope[];

  @IsArray()
  @ArrayMaxSize(1)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => SpendingLimit)
  limits!: SpendingLimit[];
}

export interface IssuedAuthorizationCode {
  code: string;
}

/** Field names of POST /auth/token (DESIGN.md §5.7); each is checked by auth in the interface's order. */
export class ExchangeAuthorizationCodeRequest {
  @IsString()
  code!: string;

  @IsString()
  codeVerifier!: string;

  @IsString()
  callbackUrl!: string;
}

/** The answer of POST /auth/token (DESIGN.md §5.7). */
export interface OAuthIssuedKey {
  key: string;
  user_id: string;
}

export class ConsentContextRequest {
  @IsUUID()
  userId!: string;
}

export interface ConsentOrganization {
  id: string;
  name: string;
  role: OrganizationRole;
}

/** What the consent page shows of the signed-in user. */
export interface ConsentContext {
  user: { id: string; name: string; email: string };
  organizations: ConsentOrganization[];
}

export class UserInfoRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  apiKeyId!: string;
}

/** GET /auth/userinfo (DESIGN.md §5.7): `name` and `email` only where the key's scopes grant them. */
export interface OAuthUserInfo {
  id: string;
  name?: string;
  email?: string;
}

export const OAuthContracts = {
  issueCode: rpc<IssueAuthorizationCodeRequest, IssuedAuthorizationCode>(
    'auth.v1.oauth.issue-code',
    IssueAuthorizationCodeRequest,
  ),
  /** Consumes the code (once, whoever races for it) and issues or rotates the application's key. */
  exchangeCode: rpc<ExchangeAuthorizationCodeRequest, OAuthIssuedKey>(
    'auth.v1.oauth.exchange-code',
    ExchangeAuthorizationCodeRequest,
  ),
  consentContext: rpc<ConsentContextRequest, ConsentContext>(
    'auth.v1.oauth.consent-context',
    ConsentContextRequest,
  ),
  userInfo: rpc<UserInfoRequest, OAuthUserInfo>('auth.v1.oauth.userinfo', UserInfoRequest),
} as const;
