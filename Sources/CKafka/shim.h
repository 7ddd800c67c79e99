#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/* Variadic C functions do not import into Swift: a fixed-arity wrapper for one (error, rtt) pair. */
static inline rd_kafka_resp_err_t
ckafka_mock_broker_push_request_error_rtt(rd_kafka_mock_cluster_t *mcluster,
                                          int32_t broker_id,
                                          int16_t api_key,
                                          rd_kafka_resp_err_t err,
                                          int rtt_ms) {
        return rd_kafka_mock_broker_push_request_error_rtts(
            mcluster, broker_id, api_key, 1, err, rtt_ms);
}
