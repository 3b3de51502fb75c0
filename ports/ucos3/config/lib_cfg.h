/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uC/LIB configuration (lib_cfg.h) rtbench's uC/OS-III port is built
 * with. The kernel and uC/CPU read uC/LIB's definitions (lib_def.h) and
 * headers; rtbench uses none of its functions, and no uC/LIB heap: the
 * port's memory is its own allocator over the board's heap section
 * (ports/ucos3/mem.c). See os_cfg.h beside it for how to build with another.
 */
#ifndef LIB_CFG_MODULE_PRESENT
#define LIB_CFG_MODULE_PRESENT

#define LIB_MEM_CFG_ARG_CHK_EXT_EN DEF_DISABLED
#define LIB_MEM_CFG_OPTIMIZE_ASM_EN DEF_DISABLED
#define LIB_MEM_CFG_DBG_INFO_EN DEF_DISABLED
/* No uC/LIB heap (Mem_Heap). */
#define LIB_MEM_CFG_HEAP_SIZE 0u
#define LIB_MEM_CFG_HEAP_PADDING_ALIGN LIB_MEM_PADDING_ALIGN_NONE

#define LIB_STR_CFG_FP_EN DEF_DISABLED
#define LIB_STR_CFG_FP_MAX_NBR_DIG_SIG LIB_STR_FP_MAX_NBR_DIG_SIG_DFLT

#endif /* LIB_CFG_MODULE_PRESENT */
