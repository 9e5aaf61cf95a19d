import { ServiceEnv } from '@gw/platform';

export class MediaEnv extends ServiceEnv {}
