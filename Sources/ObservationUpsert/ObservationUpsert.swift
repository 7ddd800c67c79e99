// The domain library's public face: the event contract (`DailyValue`, validation, the JSON scanner, the metric
// catalog) lives in `DailyValueContract`, which has no C library so that the Producer can use it alone; everything
// that imports ObservationUpsert sees it too. The PostgreSQL store's client-side options come from the client target.
@_exported import DailyValueContract
@_exported import struct PostgresClient.PostgresClientOptions
