import { Controller, Get, Header, Post, Req, Res, UseFilters } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiExcludeEndpoint,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { AuthContracts, DomainError, OAuthContracts, type UserPrincipal } from '@gw/contracts';
import { ErrorEnvelopeDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Request, Response } from 'express';
import { LoginThrottle } from '../rate-limits/credential-attempt-throttle';
import {
  type AuthorizationRequest,
  authorizationQuery,
  callbackRedirect,
  parseAuthorizationRequest,
} from './authorization-request';
import { BrowserErrorFilter } from './browser-error.filter';
import { setBrowserPageHeaders } from './browser-headers';
import { BrowserSession } from './browser-session';
import { parseConsentForm } from './consent-form';
import { type ConsentValues, consentPage, loginPage } from './oauth-pages';
import { OAUTH_STYLESHEET } from './oauth-styles';

const AUTHORIZE_PATH = '/api/auth/authorize';
const NO_VALUES: ConsentValues = { scopes: [], limitPeriod: 'none', limitAmount: '' };

type FormBody = Record<string, unknown>;

/**
 * The browser half of the OAuth flow (interface: GET /auth/authorize; DESIGN.md §5.9): server-rendered
 * pages that work without JavaScript. Every form posts back with the authorization query, which is
 * checked again on each step, so the flow keeps no state besides the session and CSRF cookies.
 */
@ApiTags('oauth')
@Controller('auth')
@UseFilters(BrowserErrorFilter)
export class AuthorizeController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly session: BrowserSession,
    private readonly throttle: LoginThrottle,
  ) {}

  @Get('authorize')
  @ApiOperation({
    summary: 'Start of the OAuth 2.0 authorization-code flow with PKCE (a page for the browser)',
    description:
      'Shows the login form without a console session, else the consent form; approval redirects to callback_url with code and state, refusal with error=access_denied and state.',
  })
  @ApiQuery({ name: 'response_type', enum: ['code'] })
  @ApiQuery({ name: 'callback_url', description: 'HTTPS; http only for localhost and 127.0.0.1' })
  @ApiQuery({ name: 'code_challenge', description: 'BASE64URL(SHA256(code_verifier)), 43 to 128 characters' })
  @ApiQuery({ name: 'code_challenge_method', enum: ['S256'] })
  @ApiQuery({ name: 'state', required: false })
  @ApiQuery({ name: 'app_name', required: false })
  @ApiOkResponse({ description: 'The login or consent page (text/html)' })
  @ApiBadRequestResponse({
    description: 'Invalid callback_url, code_challenge or method',
    type: ErrorEnvelopeDto,
  })
  async show(@Req() request: Request, @Res() response: Response): Promise<void> {
    const authorization = parseAuthorizationRequest(request.query);
    const user = await this.session.user(request);
    if (!user) return this.renderLogin(request, response, authorization, 200);
    return this.renderConsent(request, response, authorization, user, NO_VALUES, 200);
  }

  @Post('authorize/login')
  @ApiExcludeEndpoint()
  async login(@Req() request: Request, @Res() response: Response): Promise<void> {
    const authorization = parseAuthorizationRequest(request.query);
    const body = formBody(request);
    this.session.checkCsrf(request, body.csrf);
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    if (!email || !password) {
      return this.renderLogin(request, response, authorization, 400, email, 'Введите почту и пароль.');
    }
    try {
      const token = await this.throttle.attempt(request.ip ?? '', email, response, () =>
        this.rpc.request(AuthContracts.login, { email, password }),
      );
      this.session.startSession(request, response, token.access_token, token.expires_in);
    } catch (err) {
      // A malformed email is as wrong as an unknown one, and says so in the same words.
      if (err instanceof DomainError && (err.code === 'unauthorized' || err.code === 'invalid_request')) {
        return this.renderLogin(request, response, authorization, 401, email, 'Неверная почта или пароль.');
      }
      throw err;
    }
    this.redirect(response, `${AUTHORIZE_PATH}?${authorizationQuery(authorization)}`);
  }

  @Post('authorize/consent')
  @ApiExcludeEndpoint()
  async decide(@Req() request: Request, @Res() response: Response): Promise<void> {
    const authorization = parseAuthorizationRequest(request.query);
    const body = formBody(request);
    this.session.checkCsrf(request, body.csrf);
    const user = await this.session.user(request);
    // The session ended while the page was open: log in again, then the same question.
    if (!user) return this.redirect(response, `${AUTHORIZE_PATH}?${authorizationQuery(authorization)}`);
    const decision = parseConsentForm(body);
    switch (decision.decision) {
      case 'decline':
        return this.redirect(response, callbackRedirect(authorization, { error: 'access_denied' }));
      case 'invalid':
        return this.renderConsent(
          request,
          response,
          authorization,
          user,
          decision.values,
          400,
          decision.error,
        );
      case 'approve': {
        const { code } = await this.rpc.request(OAuthContracts.issueCode, {
          userId: user.userId,
          organizationId: decision.organizationId,
          callbackUrl: authorization.callbackUrl,
          codeChallenge: authorization.codeChallenge,
          appName: authorization.appName,
          scopes: decision.scopes,
          limits: decision.limits,
        });
        return this.redirect(response, callbackRedirect(authorization, { code }));
      }
    }
  }

  @Get('assets/oauth.css')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  @Header('X-Content-Type-Options', 'nosniff')
  stylesheet(): string {
    return OAUTH_STYLESHEET;
  }

  private renderLogin(
    request: Request,
    response: Response,
    authorization: AuthorizationRequest,
    status: number,
    email?: string,
    error?: string,
  ): void {
    const page = loginPage({
      ...authorization,
      action: `${AUTHORIZE_PATH}/login?${authorizationQuery(authorization)}`,
      csrf: this.session.csrfToken(request, response),
      ...(email !== undefined ? { email } : {}),
      ...(error !== undefined ? { error } : {}),
    });
    this.send(response, authorization, status, page);
  }

  private async renderConsent(
    request: Request,
    response: Response,
    authorization: AuthorizationRequest,
    user: UserPrincipal,
    values: ConsentValues,
    status: number,
    error?: string,
  ): Promise<void> {
    const context = await this.rpc.request(OAuthContracts.consentContext, { userId: user.userId });
    const page = consentPage({
      ...authorization,
      action: `${AUTHORIZE_PATH}/consent?${authorizationQuery(authorization)}`,
      csrf: this.session.csrfToken(request, response),
      context,
      values: { ...values, organizationId: values.organizationId ?? user.organizationId },
      ...(error !== undefined ? { error } : {}),
    });
    this.send(response, authorization, status, page);
  }

  /** The page may post to the gateway, whose answer redirects to the callback's origin. */
  private send(response: Response, authorization: AuthorizationRequest, status: number, page: string): void {
    setBrowserPageHeaders(response, [new URL(authorization.callbackUrl).origin]);
    response.status(status).type('html').send(page);
  }

  /** 303: the browser follows a form post with a GET. */
  private redirect(response: Response, location: string): void {
    setBrowserPageHeaders(response);
    response.redirect(303, location);
  }
}

/**
 * A urlencoded form body as Express parses it: strings, or arrays of them for repeated fields. No
 * body at all is an empty form, which then fails its CSRF check.
 */
function formBody(request: Request): FormBody {
  const body: unknown = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as FormBody) : {};
}
