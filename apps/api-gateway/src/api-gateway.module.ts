import { DynamicModule, INestApplication, LoggerService, Module } from '@nestjs/common';
import { APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  AppMetrics,
  createValidationPipe,
  type DependencyCheck,
  HttpErrorFilter,
  MetricsModule,
  serviceTransport,
  TransportModule,
  TransportOptions,
} from '@gw/platform';
import { API_GATEWAY_ENV, ApiGatewayEnv } from './api-gateway.env';
import { GatewayAuthModule } from './auth/gateway-auth.module';
import { GatewayBillingModule } from './billing/gateway-billing.module';
import { GatewayEmbeddingsModule } from './embeddings/gateway-embeddings.module';
import { GatewayFormatsModule } from './formats/gateway-formats.module';
import { UndeliveredGenerations } from './generations/undelivered-generations';
import { GatewayHealthModule, HOST_READINESS_CHECKS } from './health/gateway-health.module';
import { configureConnectionErrors } from './http/connection-errors';
import { RequestBodyInterceptor } from './http/request-body.interceptor';
import { observeRequests, serveMetrics } from './http/request-observer';
import { answerUnknownRoutesWithEnvelope, configureRequestParsing } from './http/request-parsing';
import { configureTrustedProxies } from './http/trusted-proxies';
import { GatewayInferenceModule } from './inference/gateway-inference.module';
import { GatewayMediaModule } from './media/gateway-media.module';
import { GatewayOAuthModule } from './oauth/gateway-oauth.module';
import { isBrowserRoute } from './oauth/browser-headers';
import { GatewayRateLimitsModule } from './rate-limits/gateway-rate-limits.module';
import { GatewayStorageModule } from './storage/gateway-storage.module';
import { GatewayTranscriptionsModule } from './transcriptions/gateway-transcriptions.module';

export { ApiGatewayEnv, WithSyncWait } from './api-gateway.env';

const PERMISSIVE_CORS = { origin: '*', exposedHeaders: ['Retry-After', 'X-Request-Id'], maxAge: 600 };

export interface ApiGatewayOptions {
  env: ApiGatewayEnv;
  transport: TransportOptions;
  /**
   * What the process hosting the gateway cannot serve without beyond the gateway's own NATS and blob
   * store, answered for by `/api/health/ready`: the embedded mode names its services' PostgreSQL.
   */
  readinessChecks?: readonly DependencyCheck[];
}

/** The HTTP edge: validation, authentication, mapping of messages and errors. No state, no database. */
@Module({})
export class ApiGatewayModule {
  static register(options: ApiGatewayOptions): DynamicModule {
    return {
      module: ApiGatewayModule,
      global: true,
      imports: [
        MetricsModule.forApp('api-gateway'),
        TransportModule.forRoot(options.transport),
        GatewayRateLimitsModule,
        GatewayAuthModule,
        GatewayBillingModule,
        GatewayInferenceModule,
        GatewayEmbeddingsModule,
        GatewayFormatsModule,
        GatewayMediaModule,
        GatewayOAuthModule,
        GatewayStorageModule,
        GatewayTranscriptionsModule,
        GatewayHealthModule,
      ],
      providers: [
        { provide: API_GATEWAY_ENV, useValue: options.env },
        { provide: HOST_READINESS_CHECKS, useValue: options.readinessChecks ?? [] },
        { provide: APP_INTERCEPTOR, useClass: RequestBodyInterceptor },
        UndeliveredGenerations,
      ],
      exports: [API_GATEWAY_ENV, HOST_READINESS_CHECKS, UndeliveredGenerations],
    };
  }
}

/**
 * Builds the gateway application (not yet listening): request ids, metrics at `/metrics` and the
 * access log, `/api` prefix, the strict validation pipe,
 * the error envelope, Swagger at /api/docs, and a subscription (no queue group, so every replica
 * gets it) to the broadcasts that invalidate cached credentials.
 */
export async function createApiGatewayApp(
  options: ApiGatewayOptions,
  logger: LoggerService,
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiGatewayModule.register(options), {
    logger,
    bodyParser: false,
    // A failing provider is rethrown to the caller's start-up handling instead of exiting the process.
    abortOnError: false,
  });
  // First, so that every request is named, counted and logged, whatever answers it.
  observeRequests(app, app.get(AppMetrics), logger);
  serveMetrics(app);
  // Which framework answers is of use to no client, only to an attacker.
  app.disable('x-powered-by');
  // Browser apps call the API with a bearer key, as they may call OpenAI's or OpenRouter's; no cookie
  // authorizes those routes, so any origin may, and preflights are answered for ten minutes. The
  // OAuth pages are authorized by the console session cookie: no other origin may read or drive them.
  app.enableCors((request: Request, callback) =>
    callback(null, isBrowserRoute(request.url) ? { origin: false } : PERMISSIVE_CORS),
  );
  configureTrustedProxies(app, options.env.TRUSTED_PROXIES);
  configureConnectionErrors(app, options.env.HTTP_BODY_IDLE_TIMEOUT_MS);
  configureRequestParsing(app);
  app.setGlobalPrefix('api');
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new HttpErrorFilter());
  app.connectMicroservice(serviceTransport(options.transport, null), { inheritAppConfig: true });
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Model gateway')
      .setDescription('One API in front of several upstream model providers. Costs are in roubles (RUB).')
      .setVersion('1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key or console JWT' })
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN of the operator API' },
        'admin-token',
      )
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
  await app.startAllMicroservices();
  await answerUnknownRoutesWithEnvelope(app);
  return app;
}
