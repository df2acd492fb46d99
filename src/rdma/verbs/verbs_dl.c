/*
 * libibverbs and librdmacm, opened when the verbs channel is first asked
 * whether it can run, not linked (base/dl.h): the functions of them that
 * rdmach calls (posting and polling are inline in verbs.h, calls through
 * the context's operations). Versions: the default ones, which the linker
 * bound before.
 */
#include "rdmach_config.h"
#if RDMACH_HAVE_VERBS
#include "base/dl.h"
#include "rdma/verbs/verbs.h"

struct rch_base_dl rch_verbs_dl = { .soname = "libibverbs.so.1", .what = "the verbs channel" };
struct rch_base_dl rch_rdmacm_dl = { .soname = "librdmacm.so.1", .what = "the verbs channel" };

rdmach_status_t rch_verbs_dl_open(void)
{
    rdmach_status_t st = rch_base_dl_open(&rch_verbs_dl);
    return st != RDMACH_OK ? st : rch_base_dl_open(&rch_rdmacm_dl);
}

#define V11 "IBVERBS_1.1"
RCH_DL_FN(rch_verbs_dl, V11, struct ibv_device **, ibv_get_device_list, (int *num_devices), (num_devices))
RCH_DL_VOID(rch_verbs_dl, V11, ibv_free_device_list, (struct ibv_device **list), (list))
RCH_DL_FN(rch_verbs_dl, V11, const char *, ibv_get_device_name, (struct ibv_device *device), (device))
RCH_DL_FN(rch_verbs_dl, V11, __be64, ibv_get_device_guid, (struct ibv_device *device), (device))
RCH_DL_FN(rch_verbs_dl, V11, const char *, ibv_node_type_str, (enum ibv_node_type node_type), (node_type))
RCH_DL_FN(rch_verbs_dl, V11, struct ibv_context *, ibv_open_device, (struct ibv_device *device), (device))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_close_device, (struct ibv_context *context), (context))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_query_device,
          (struct ibv_context *context, struct ibv_device_attr *device_attr), (context, device_attr))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_query_port,
          (struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr),
          (context, port_num, port_attr))
RCH_DL_FN(rch_verbs_dl, V11, struct ibv_pd *, ibv_alloc_pd, (struct ibv_context *context), (context))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_dealloc_pd, (struct ibv_pd *pd), (pd))
RCH_DL_FN(rch_verbs_dl, V11, struct ibv_mr *, ibv_reg_mr, (struct ibv_pd *pd, void *addr, size_t length, int access),
          (pd, addr, length, access))
RCH_DL_FN(rch_verbs_dl, "IBVERBS_1.8", struct ibv_mr *, ibv_reg_mr_iova2,
          (struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access),
          (pd, addr, length, iova, access))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_dereg_mr, (struct ibv_mr *mr), (mr))
RCH_DL_FN(rch_verbs_dl, "IBVERBS_1.0", struct ibv_comp_channel *, ibv_create_comp_channel,
          (struct ibv_context *context), (context))
RCH_DL_FN(rch_verbs_dl, "IBVERBS_1.0", int, ibv_destroy_comp_channel, (struct ibv_comp_channel *channel), (channel))
RCH_DL_FN(rch_verbs_dl, V11, struct ibv_cq *, ibv_create_cq,
          (struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel, int comp_vector),
          (context, cqe, cq_context, channel, comp_vector))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_destroy_cq, (struct ibv_cq *cq), (cq))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_get_cq_event,
          (struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context), (channel, cq, cq_context))
RCH_DL_VOID(rch_verbs_dl, V11, ibv_ack_cq_events, (struct ibv_cq *cq, unsigned int nevents), (cq, nevents))
RCH_DL_FN(rch_verbs_dl, V11, struct ibv_qp *, ibv_create_qp, (struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr),
          (pd, qp_init_attr))
RCH_DL_FN(rch_verbs_dl, V11, int, ibv_destroy_qp, (struct ibv_qp *qp), (qp))
RCH_DL_FN(rch_verbs_dl, V11, const char *, ibv_wc_status_str, (enum ibv_wc_status status), (status))

#define CM "RDMACM_1.0"
RCH_DL_FN(rch_rdmacm_dl, CM, struct rdma_event_channel *, rdma_create_event_channel, (void), ())
RCH_DL_VOID(rch_rdmacm_dl, CM, rdma_destroy_event_channel, (struct rdma_event_channel *channel), (channel))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_create_id,
          (struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps),
          (channel, id, context, ps))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_destroy_id, (struct rdma_cm_id *id), (id))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_bind_addr, (struct rdma_cm_id *id, struct sockaddr *addr), (id, addr))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_resolve_addr,
          (struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms),
          (id, src_addr, dst_addr, timeout_ms))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_resolve_route, (struct rdma_cm_id *id, int timeout_ms), (id, timeout_ms))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_create_qp,
          (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr), (id, pd, qp_init_attr))
RCH_DL_VOID(rch_rdmacm_dl, CM, rdma_destroy_qp, (struct rdma_cm_id *id), (id))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_connect, (struct rdma_cm_id *id, struct rdma_conn_param *conn_param),
          (id, conn_param))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_listen, (struct rdma_cm_id *id, int backlog), (id, backlog))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_accept, (struct rdma_cm_id *id, struct rdma_conn_param *conn_param),
          (id, conn_param))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_reject, (struct rdma_cm_id *id, const void *private_data,
                                                 uint8_t private_data_len),
          (id, private_data, private_data_len))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_disconnect, (struct rdma_cm_id *id), (id))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_get_cm_event, (struct rdma_event_channel *channel, struct rdma_cm_event **event),
          (channel, event))
RCH_DL_FN(rch_rdmacm_dl, CM, int, rdma_ack_cm_event, (struct rdma_cm_event *event), (event))
RCH_DL_FN(rch_rdmacm_dl, CM, const char *, rdma_event_str, (enum rdma_cm_event_type event), (event))
#endif
